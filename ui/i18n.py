"""Every UI string in Japanese and English, and the sidebar switch between them.

``t(key, **values)`` returns the string for the session's language, formatted with ``values``.
The language lives in ``st.session_state["sidebar_lang"]``; its default comes from ``settings.ui_language``.
"""

from __future__ import annotations

import streamlit as st

LANGUAGES = ("ja", "en")
_KEY = "sidebar_lang"

STRINGS: dict[str, tuple[str, str]] = {  # key: (ja, en)
    "nav.upload": ("アップロード", "Upload"),
    "nav.stats": ("インデックス統計", "Index stats"),
    "nav.search": ("検索の検査", "Search inspection"),
    "nav.ask": ("質問応答", "Ask"),
    "nav.quiz": ("クイズ", "Quiz"),
    "nav.bases": ("ナレッジベース", "Knowledge bases"),
    "common.empty_index": (
        "まだ何もインデックスされていません。「アップロード」でファイルを追加してください。",
        "Nothing is indexed yet. Add files on the Upload page.",
    ),
    "common.choose": ("選択してください", "Choose"),
    "common.language": ("言語 / Language", "言語 / Language"),
    # sidebar
    "sidebar.llm": ("LLM バックエンド", "LLM backend"),
    "sidebar.recheck": ("Ollama を再確認", "Re-check Ollama"),
    "sidebar.live": ("使用中: {name}{model}", "Live: {name}{model}"),
    "sidebar.no_backend": (
        "利用できるバックエンドがありません (設定: {configured})。"
        "Ollama を起動するか RAG_LLM_BACKEND=extractive にしてください。",
        "No backend is available (configured: {configured}). Start Ollama or set RAG_LLM_BACKEND=extractive.",
    ),
    "sidebar.backends": ("すべてのバックエンド", "All backends"),
    "sidebar.index": ("インデックス", "Index"),
    "sidebar.embedding": ("埋め込みモデル: {model}", "Embedding model: {model}"),
    "sidebar.reranker": ("リランカー: {state}", "Reranker: {state}"),
    "sidebar.off": ("オフ", "off"),
    "sidebar.version": ("インデックス版: {version}", "Index version: {version}"),
    "sidebar.collection": ("コレクション: {collection}", "Collection: {collection}"),
    "sidebar.storage": ("保存先: {path}", "Storage: {path}"),
    "sidebar.models_lazy": (
        "モデルは最初に使うときに一度だけ読み込まれます。",
        "Models load once, on first use.",
    ),
    # records shown in tables
    # knowledge bases
    "bases.title": ("ナレッジベース", "Knowledge bases"),
    "bases.active": ("使うナレッジベース", "Active knowledge bases"),
    "bases.active_help": (
        "検索と質問応答はここで選んだベースすべてを対象にします (何も選ばなければ default)。",
        "Search and Ask run over every base chosen here (default when none is).",
    ),
    "bases.index_into": ("追加先のナレッジベース", "Knowledge base to add to"),
    "bases.show": ("表示するナレッジベース", "Knowledge base to show"),
    "bases.quiz_from": ("出題するナレッジベース", "Knowledge base to quiz from"),
    "bases.name": ("名前", "Name"),
    "bases.name_help": (
        "文字 (日本語可)・数字・-・_ で 64 文字まで。空白・ドット・/ は使えません。",
        "Letters (Japanese too), digits, - and _, at most 64 characters; no spaces, dots or slashes.",
    ),
    "bases.embedding": ("埋め込みエンジン", "Embedding engine"),
    "bases.own_settings": ("独自の設定", "Own settings"),
    "bases.create": ("新しいナレッジベース", "New knowledge base"),
    "bases.chunk_size": ("チャンクの文字数", "Chunk size (characters)"),
    "bases.overlap": ("チャンクの重なり", "Chunk overlap"),
    "bases.ocr_language": ("OCR の言語", "OCR language"),
    "bases.engine": ("埋め込みエンジン", "Embedding engine"),
    "bases.engine_help": (
        "offline (内蔵の multilingual-e5-small) または ollama:モデル名 (例 ollama:bge-m3)。後から変えられません。",
        "offline (the built-in multilingual-e5-small) or ollama:MODEL (e.g. ollama:bge-m3). It cannot change later.",
    ),
    "bases.create_button": ("作成", "Create"),
    "bases.created": ("ナレッジベース {name} を作成しました。", "Created knowledge base {name}."),
    "bases.rename": ("名前の変更", "Rename"),
    "bases.which": ("ナレッジベース", "Knowledge base"),
    "bases.new_name": ("新しい名前", "New name"),
    "bases.rename_button": ("名前を変更", "Rename"),
    "bases.renamed": ("{old} を {new} に変更しました。", "Renamed {old} to {new}."),
    "bases.delete": ("削除", "Delete"),
    "bases.delete_warning": (
        "{name} のファイル・インデックス・クイズをすべて削除します。元に戻せません。",
        "This deletes {name} with all its files, index and quizzes. It cannot be undone.",
    ),
    "bases.type_name": ("確認のため「{name}」と入力してください", "Type {name} to confirm"),
    "bases.delete_button": ("削除する", "Delete"),
    "bases.deleted": ("ナレッジベース {name} を削除しました。", "Deleted knowledge base {name}."),
    "col.sources": ("ソース数", "Sources"),
    "col.source": ("ソース", "Source"),
    "col.status": ("状態", "Status"),
    "col.chunks": ("チャンク数", "Chunks"),
    "col.reason": ("理由", "Reason"),
    "col.doc_type": ("文書種別", "Doc type"),
    "col.pages": ("ページ数", "Pages"),
    "col.ocr_pages": ("OCR したページ", "Pages read with OCR"),
    "col.date": ("日付", "Date"),
    "col.language": ("言語", "Language"),
    "col.errors": ("エラー・警告", "Errors / warnings"),
    "col.version": ("インデックス版", "Index version"),
    "col.at": ("日時", "At"),
    "col.action": ("操作", "Action"),
    "col.detail": ("内容", "Detail"),
    "status.indexed": ("新規", "indexed"),
    "status.updated": ("更新", "updated"),
    "status.unchanged": ("変更なし", "unchanged"),
    "status.failed": ("失敗", "failed"),
    "status.skipped": ("対象外", "skipped"),
    "source.ocr": ("OCR テキスト (スキャン画像の読み取り結果)", "OCR text (read from a scanned image)"),
    "source.chat": ("発言者と時刻: {who}", "Said by, when: {who}"),
    "stage.parsing": ("解析中", "parsing"),
    "stage.embedding": ("埋め込み中", "embedding"),
    "stage.finishing": ("仕上げ中", "finishing"),
    "progress.start": ("開始しています…", "Starting…"),
    "progress.line": (
        "{done}/{total} ファイル · {stage} · {current} · 埋め込み {embedded} · 経過 {elapsed} · 残り {eta}",
        "{done}/{total} files · {stage} · {current} · embedded {embedded} · elapsed {elapsed} · left {eta}",
    ),
    # upload
    "upload.title": ("ドキュメントのアップロード", "Upload documents"),
    "upload.tab_files": ("ファイル", "Files"),
    "upload.tab_folder": ("フォルダー", "Folder"),
    "upload.files": (
        "ファイルを選択 (PDF, TXT, MD, DOCX, HTML, CSV, XLSX, JSON, JSONL)",
        "Choose files (PDF, TXT, MD, DOCX, HTML, CSV, XLSX, JSON, JSONL)",
    ),
    "upload.index_files": ("インデックスに追加", "Add to index"),
    "upload.folder": (
        "フォルダーのパス (サーバー上、再帰的に読み込みます)",
        "Folder path (on the server, read recursively)",
    ),
    "upload.index_folder": ("フォルダーをインデックス", "Index folder"),
    "upload.indexing": ("{n} 件のファイルをインデックス中…", "Indexing {n} file(s)…"),
    "upload.indexing_folder": ("{path} をインデックス中…", "Indexing {path}…"),
    "upload.reindexing": ("再インデックス中…", "Re-indexing…"),
    "upload.done": ("インデックス完了", "Indexing finished"),
    "upload.failed": ("インデックスに失敗しました", "Indexing failed"),
    "upload.result": ("ファイルごとの結果", "Result per file"),
    "upload.summary": (
        "版 {version}: 新規 {indexed} · 更新 {updated} · 変更なし {unchanged} · 失敗 {failed} · 対象外 {skipped} · "
        "埋め込み {embedded} チャンク",
        "Version {version}: {indexed} indexed · {updated} updated · {unchanged} unchanged · {failed} failed · "
        "{skipped} skipped · "
        "{embedded} chunks embedded",
    ),
    "upload.manage": ("ソースの管理", "Manage sources"),
    "upload.choose_sources": ("ソースを選択", "Choose sources"),
    "upload.reindex": ("再インデックス", "Re-index"),
    "upload.reindex_help": (
        "選択したソース (未選択なら全部) を元のファイルから読み直します。変更のないものはすぐ終わります。",
        "Re-read the chosen sources (all when none is chosen) from their files; unchanged ones are skipped.",
    ),
    "upload.delete": ("削除…", "Delete…"),
    "upload.confirm_text": (
        "{n} 件のソースをインデックスから削除します: {sources}。元に戻せません。よろしいですか?",
        "Delete {n} source(s) from the index: {sources}. This cannot be undone. Continue?",
    ),
    "upload.confirm_yes": ("はい、削除します", "Yes, delete"),
    "upload.confirm_no": ("キャンセル", "Cancel"),
    "upload.deleted": (
        "{n} 件のソースを削除しました ({chunks} チャンク)。",
        "Deleted {n} source(s) ({chunks} chunks).",
    ),
    # upload: the log archive and live set (``svc.sync``)
    "upload.sync_title": ("ログのアーカイブとライブの更新", "Log archive and live set"),
    "upload.sync": ("インデックスを更新", "Update index"),
    "upload.sync_where": ("アーカイブ: {archive} · ライブ: {live}", "Archive: {archive} · live: {live}"),
    "upload.sync_unset": (
        "RAG_ARCHIVE_DIR (過去ログのフォルダー)、RAG_LIVE_DIRS (ナレッジのフォルダー)、RAG_LIVE_LOG (現在のログ) を"
        "設定すると、ここでまとめて更新できます。",
        "Set RAG_ARCHIVE_DIR (a folder of finished logs), RAG_LIVE_DIRS (knowledge folders) and RAG_LIVE_LOG (the "
        "current log) to update them here in one step.",
    ),
    "upload.syncing": ("インデックスを更新中…", "Updating the index…"),
    "upload.sync_summary": (
        "版 {version}: アーカイブ 新規 {new} · 既存 {unchanged} — ライブ 再読込 {rebuilt} · 変更なし {live_unchanged} "
        "· 削除 {removed} — 埋め込み {embedded} チャンク ({seconds} 秒)",
        "Version {version}: archive {new} new · {unchanged} already indexed — live {rebuilt} read again · "
        "{live_unchanged} unchanged · {removed} removed — {embedded} chunks embedded ({seconds} s)",
    ),
    "upload.sync_changed": (
        "索引後に変更されたアーカイブのファイル (古いチャンクのままです。新しい内容を使うには個別に再インデックスして"
        "ください): {sources}",
        "Archive files changed after they were indexed (their old chunks are kept; re-index them on purpose to use "
        "the new content): {sources}",
    ),
    "upload.sync_missing": (
        "アーカイブから消えたファイル (チャンクは残しています): {sources}",
        "Archive files no longer on disk (their chunks are kept): {sources}",
    ),
    "upload.sync_failed": ("読めなかったファイル {source}: {error}", "Could not read {source}: {error}"),
    # stats
    "stats.title": ("インデックス統計", "Index statistics"),
    "stats.sources": ("ソース", "Sources"),
    "stats.pages": ("ページ", "Pages"),
    "stats.chunks": ("チャンク", "Chunks"),
    "stats.version": ("インデックス版", "Index version"),
    "stats.embedding": ("埋め込みモデル: {model}", "Embedding model: {model}"),
    "stats.charts": ("グラフ", "Charts"),
    "stats.chunks_per_source": ("ソース別チャンク数", "Chunks per source"),
    "stats.chunk_lengths": ("チャンク長の分布", "Chunk lengths"),
    "stats.doc_types": ("文書種別", "Doc types"),
    "stats.languages": ("言語", "Languages"),
    "stats.length": ("文字数", "Characters"),
    "stats.count": ("件数", "Count"),
    "stats.length_summary": (
        "{n} チャンク · 平均 {mean:.0f} 文字 · 最長 {longest} 文字",
        "{n} chunks · mean {mean:.0f} characters · longest {longest}",
    ),
    "stats.history": ("インデックス版の履歴", "Index version history"),
    "stats.no_history": ("履歴はまだありません。", "No history yet."),
    "stats.consistency": ("整合性チェック", "Consistency check"),
    "stats.check": ("マニフェスト・Chroma・BM25 を照合", "Compare manifest, Chroma and BM25"),
    "stats.checking": ("照合中…", "Checking…"),
    "stats.reembed": ("設定中の埋め込みモデルで全チャンクを再埋め込み", "Re-embed every chunk with the set model"),
    "stats.reembedding": ("再埋め込み中…", "Re-embedding…"),
    "stats.reembedded": ("{n} チャンクを再埋め込みしました。", "Re-embedded {n} chunks."),
    "stats.consistent": ("整合しています。", "Consistent."),
    "stats.inconsistent": ("不整合があります。再インデックスで修復してください。", "Inconsistent. Re-index to repair."),
    "stats.store": ("保存先", "Store"),
    "stats.missing": ("Chroma に無いチャンク: {ids}", "Missing in Chroma: {ids}"),
    "stats.orphans": ("Chroma の孤立チャンク: {ids}", "Orphans in Chroma: {ids}"),
    # stats: monitoring and backup
    "monitor.title": ("利用状況のモニタリング", "Monitoring"),
    "monitor.window": (
        "{since} 以降の検索と回答（質問の文面は保存しません）",
        "Searches and answers since {since} (question text is never stored)",
    ),
    "monitor.empty": ("まだ検索も質問もありません。", "No searches or questions yet."),
    "monitor.searches": ("検索", "Searches"),
    "monitor.answers": ("回答", "Answers"),
    "monitor.hit_ratio": ("ヒット率", "Hit ratio"),
    "monitor.hit_ratio_help": ("1 件以上ヒットした質問の割合", "Share of questions with at least one hit"),
    "monitor.no_basis_ratio": ("根拠なし率", "No-basis ratio"),
    "monitor.no_basis_help": ("文書に根拠が見つからなかった質問の割合", "Share of questions with no basis found"),
    "monitor.stage": ("段階", "Stage"),
    "monitor.count": ("回数", "Count"),
    "monitor.by_hour": ("時間帯別の質問数 (UTC)", "Questions by hour (UTC)"),
    "monitor.hour": ("時刻", "Hour"),
    "monitor.backends": ("回答したバックエンド: {backends}", "Answered by: {backends}"),
    "monitor.stage.embed": ("クエリ埋め込み", "Query embedding"),
    "monitor.stage.dense": ("ベクトル検索", "Dense search"),
    "monitor.stage.bm25": ("BM25", "BM25"),
    "monitor.stage.fusion": ("融合", "Fusion"),
    "monitor.stage.rerank": ("再ランキング", "Rerank"),
    "monitor.stage.context": ("文脈と根拠", "Context and evidence"),
    "monitor.stage.first_token": ("最初の語まで", "First token"),
    "monitor.stage.generate": ("回答生成", "Generation"),
    "monitor.stage.check": ("主張の検証", "Claim checks"),
    "monitor.stage.total": ("全体", "Total"),
    "backup.title": ("バックアップ", "Backup"),
    "backup.export": ("エクスポート", "Export"),
    "backup.import": ("インポート", "Import"),
    "backup.export_help": (
        "ベクトル・BM25 トークン・マニフェスト・設定・クイズを 1 つのファイルにまとめます（再埋め込みなしで復元）。",
        "Vectors, BM25 tokens, manifest, settings and quizzes in one file (restored without re-embedding).",
    ),
    "backup.prepare": ("エクスポートを作成", "Create export"),
    "backup.exporting": ("エクスポート中…", "Exporting…"),
    "backup.download": ("ダウンロード", "Download"),
    "backup.import_help": (
        "空のストレージにだけ復元できます。埋め込みモデルが同じである必要があります。",
        "Restores into an empty storage only, with the same embedding model.",
    ),
    "backup.archive": ("エクスポートしたファイル (.zip)", "Exported file (.zip)"),
    "backup.restore": ("インポート", "Import"),
    "backup.importing": ("インポート中…", "Importing…"),
    "backup.summary": (
        "{sources} ソース、{chunks} チャンク、クイズ {quizzes} 件 · {mb:.1f} MB · {seconds:.1f} 秒",
        "{sources} sources, {chunks} chunks, {quizzes} quiz sets · {mb:.1f} MB · {seconds:.1f} s",
    ),
    # search
    "search.title": ("検索の検査", "Search inspection"),
    "search.tab_search": ("検索", "Search"),
    "search.tab_eval": ("評価", "Evaluation"),
    "search.query": ("検索クエリ", "Query"),
    "search.weight": (
        "意味検索の重み (0 = BM25 のみ, 1 = ベクトルのみ)",
        "Semantic weight (0 = BM25 only, 1 = dense only)",
    ),
    "search.weight_help": (
        "融合でのベクトル検索の重み (残りが BM25)。",
        "Weight of the dense scores in the fusion (BM25 gets the rest).",
    ),
    "search.top_k": ("件数", "Top k"),
    "search.rerank": ("リランカー", "Reranker"),
    "search.filters": ("フィルター", "Filters"),
    "search.f_sources": ("ソース", "Sources"),
    "search.f_types": ("文書種別", "Doc types"),
    "search.f_langs": ("言語", "Languages"),
    "search.compare": ("BM25 のみ・ベクトルのみと並べて比較", "Compare with BM25-only and dense-only"),
    "search.run": ("検索", "Search"),
    "search.running": (
        "検索中… (最初の検索では埋め込みモデルを読み込みます)",
        "Searching… (the first search loads the embedding model)",
    ),
    "search.results": ("ハイブリッド検索の結果 ({n} 件)", "Hybrid results ({n})"),
    "search.no_hits": ("該当するチャンクがありません。", "No chunk matched."),
    "search.matched": ("一致した語: {terms}", "Matched terms: {terms}"),
    "search.also_in": ("同じ内容: {sources}", "Also in: {sources}"),
    "search.neighbours": ("前後のチャンクを表示", "Show neighbouring chunks"),
    "search.side_by_side": ("BM25 のみ / ベクトルのみ / ハイブリッド", "BM25 only / dense only / hybrid"),
    "search.mode_bm25": ("BM25 のみ", "BM25 only"),
    "search.mode_dense": ("ベクトルのみ", "Dense only"),
    "search.mode_hybrid": ("ハイブリッド", "Hybrid"),
    "search.eval_help": (
        "BEIR 形式のフォルダー (corpus.jsonl, queries.jsonl, qrels/) か正解付き QA ファイルで検索を評価します。",
        "Evaluate retrieval on a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) or a golden QA file.",
    ),
    "search.eval_path": ("データセットのパス", "Dataset path"),
    "search.eval_split": ("分割", "Split"),
    "search.eval_limit": ("クエリ数の上限", "Query limit"),
    "search.eval_limit_help": ("0 = すべてのクエリ", "0 = all queries"),
    "search.eval_modes": ("モード", "Modes"),
    "search.eval_answers": ("回答を評価する（ゴールデン .jsonl）", "Evaluate answers (golden .jsonl)"),
    "search.eval_answers_help": (
        "各質問に現在のインデックスで回答し、正答率・回答拒否・裏付けのある文の割合・引用の正しさ・応答時間を測ります。",
        "Answers every question with the current index and measures accuracy, refusals, supported sentences, "
        "citation validity and latency.",
    ),
    "search.eval_run": ("評価を実行", "Run evaluation"),
    "search.eval_running": ("評価中…", "Evaluating…"),
    "search.eval_metrics": ("指標", "Metrics"),
    "search.eval_per_query": ("クエリごとの結果", "Per query"),
    "score.final_rank": ("最終順位", "Final rank"),
    "score.dense": ("ベクトル 順位 (スコア)", "Dense rank (score)"),
    "score.bm25": ("BM25 順位 (スコア)", "BM25 rank (score)"),
    "score.rrf": ("RRF スコア", "RRF score"),
    "score.fused": ("融合スコア", "Fused score"),
    "score.rerank": ("リランク スコア", "Rerank score"),
    # QA
    "qa.title": ("資料に質問する", "Ask your documents"),
    "qa.placeholder": ("質問を入力…", "Ask a question…"),
    "qa.searching": (
        "関連箇所を検索中… (初回はモデルを読み込みます)",
        "Finding relevant passages… (the first question loads the models)",
    ),
    "qa.no_basis": (
        "資料の中に根拠が見つからないため、回答しません。",
        "No basis for an answer was found in the documents, so none is given.",
    ),
    "qa.citations": ("引用", "Citations"),
    "qa.show_page": ("ページを表示", "Show page"),
    "qa.unsupported": ("根拠が確認できない文 ({n})", "Sentences without support ({n})"),
    "qa.backend": ("回答: {name}", "Answered by: {name}"),
    "qa.clear": ("履歴を消去", "Clear history"),
    "qa.evidence_title": ("根拠となる資料 ({n})", "Evidence from the documents ({n})"),
    "qa.rewritten": ("検索した質問: {query}", "Searched as: {query}"),
    "qa.claims_title": ("主張の確認", "How each sentence was checked"),
    "qa.claim_verified": ("確認済み", "verified"),
    "qa.claim_reattributed": ("出典を修正して確認", "verified against another passage"),
    "qa.claim_unsupported": ("未確認", "not supported"),
    "qa.claim_not_checked": ("対象外", "not a claim"),
    "qa.claim_computed": ("引用した数値から計算", "worked out from the cited figures"),
    "qa.model_answer": ("LLM の元の回答（未確認）", "The LLM's own answer (not verified)"),
    # quiz
    "quiz.title": ("○×クイズ", "True/false quiz"),
    "quiz.tab_generate": ("作成", "Generate"),
    "quiz.tab_play": ("解答", "Play"),
    "quiz.tab_manage": ("保存済みセット", "Saved sets"),
    "quiz.source": ("ソース", "Source"),
    "quiz.level": ("難易度", "Level"),
    "quiz.count": ("問題数", "Questions"),
    "quiz.generate": ("クイズを作成", "Generate quiz"),
    "quiz.generating": ("クイズを作成中…", "Generating the quiz…"),
    "quiz.generated": ("{n} 問のクイズを作成しました。", "Generated a quiz of {n} statements."),
    "quiz.level_beginner": ("初級", "beginner"),
    "quiz.level_intermediate": ("中級", "intermediate"),
    "quiz.level_advanced": ("上級", "advanced"),
    "quiz.choose_set": ("クイズセット", "Quiz set"),
    "quiz.no_sets": (
        "保存済みのクイズはありません。「作成」タブで作ってください。",
        "No saved quiz yet. Make one in Generate.",
    ),
    "quiz.progress": ("{i} / {n} 問目", "Statement {i} of {n}"),
    "quiz.true": ("○ 正しい", "○ True"),
    "quiz.false": ("× 誤り", "× False"),
    "quiz.correct": ("正解です!", "Correct!"),
    "quiz.wrong": ("不正解です。", "Wrong."),
    "quiz.truth": ("正解: {answer}", "Answer: {answer}"),
    "quiz.next": ("次の問題", "Next statement"),
    "quiz.finished": ("終了! 得点: {score} / {total}", "Finished! Score: {score} / {total}"),
    "quiz.score_so_far": ("得点: {score} / {answered}", "Score: {score} / {answered}"),
    "quiz.restart": ("もう一度", "Play again"),
    "quiz.delete": ("削除", "Delete"),
    "quiz.export": ("エクスポート (JSON)", "Export (JSON)"),
    "quiz.deleted": ("クイズセットを削除しました。", "Deleted the quiz set."),
    "quiz.scores": ("これまでの得点: {scores}", "Scores so far: {scores}"),
    "quiz.set_title": ("{source} · {n} 問 · {level} · {at}", "{source} · {n} statements · {level} · {at}"),
}


def init_language(default: str) -> None:
    """Give the session its starting language (``settings.ui_language``) unless it already chose one."""
    if default not in LANGUAGES:
        raise ValueError(f"ui_language={default!r}; allowed: {', '.join(LANGUAGES)}")
    st.session_state.setdefault(_KEY, default)


def language() -> str:
    lang = st.session_state.get(_KEY, LANGUAGES[0])
    return lang if lang in LANGUAGES else LANGUAGES[0]


def t(key: str, **values: object) -> str:
    """The string ``key`` in the session's language, formatted with ``values``.

    Raises:
        KeyError: ``key`` is not a known UI string (a typo in a page).
    """
    text = STRINGS[key][LANGUAGES.index(language())]
    return text.format(**values) if values else text


def language_switch(default: str) -> None:
    """The sidebar's language radio; the choice lives in session state for every page."""
    init_language(default)
    st.radio(
        STRINGS["common.language"][0],
        LANGUAGES,
        format_func=lambda code: {"ja": "日本語", "en": "English"}[code],
        horizontal=True,
        key=_KEY,
    )
