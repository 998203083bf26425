"""Stylesheet and script of the preview page, inlined into every page at write time.

They are kept as Python string constants (``page_css.CSS``, ``page_js.JS``, ``gallery_css.CSS``)
rather than ``.css``/``.js`` files so that they ship with the package without any package-data
configuration, and so that a written page never refers to anything outside itself.
"""
from pipeline.preview_assets.gallery_css import CSS as GALLERY_CSS
from pipeline.preview_assets.page_css import CSS as PAGE_CSS
from pipeline.preview_assets.page_js import JS as PAGE_JS

__all__ = ["PAGE_CSS", "PAGE_JS", "GALLERY_CSS"]
