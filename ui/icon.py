"""The page icon, drawn here and served by the app itself.

Streamlit turns a ``:material/...:`` or emoji ``page_icon`` into a URL on fonts.gstatic.com (or a CDN), so every
page view would make the browser call out of the machine. An image is served from the app's own media endpoint.
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

SIZE = 64


@cache
def page_icon() -> Image.Image:
    """A small open book in the theme's red, on a transparent background."""
    image = Image.new("RGBA", (SIZE, SIZE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    red, white = (255, 75, 75, 255), (255, 255, 255, 255)
    draw.rounded_rectangle((4, 10, SIZE - 5, SIZE - 10), radius=6, fill=red)
    draw.rectangle((12, 17, SIZE // 2 - 3, SIZE - 17), fill=white)
    draw.rectangle((SIZE // 2 + 2, 17, SIZE - 13, SIZE - 17), fill=white)
    for y in range(23, SIZE - 20, 6):
        draw.line((16, y, SIZE // 2 - 7, y), fill=red, width=2)
        draw.line((SIZE // 2 + 6, y, SIZE - 17, y), fill=red, width=2)
    return image
