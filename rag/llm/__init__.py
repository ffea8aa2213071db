"""LLM backends behind one ``LLMBackend`` protocol (Ollama, OpenAI-compatible, embedded llama.cpp, extractive)."""
