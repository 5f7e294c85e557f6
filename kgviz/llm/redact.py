"""Secrets kept off the screen and out of files: a URL's password and query secrets, and the key
values a server echoes back (an `Authorization` header, a bearer token, the API keys kgviz sends).

>>> redact_url("http://user:s3cret@gpu-box:8000/v1?api_key=abc&x=1")
'http://user:***@gpu-box:8000/v1?api_key=***&x=1'
>>> redact_url("http://127.0.0.1:11434")
'http://127.0.0.1:11434'
>>> mask_secrets('{"headers": {"Authorization": "Bearer sk-123"}}')
'{"headers": {"Authorization": "Bearer ***"}}'
>>> redact_text("no server at http://me:pw@host/v1: refused")
'no server at http://me:***@host/v1: refused'
"""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
KEY_ENVS = ("KGVIZ_OPENAI_API_KEY", "OLLAMA_API_KEY")  # the keys kgviz sends to servers
SECRET_PARAMS = re.compile(r"key|token|secret|password|auth", re.IGNORECASE)
BEARER = re.compile(r"(\b(?:Bearer|Basic|Token)\s+)[^\s\"',;]+", re.IGNORECASE)
AUTH_FIELD = re.compile(
    r"((?:authorization|api[-_]?key|x-api-key)[\"']?\s*[:=]\s*[\"']?)(?!Bearer\b|Basic\b)"
    r"[^\s\"',;}]+",
    re.IGNORECASE,
)


URL_PASSWORD = re.compile(r"(\b[a-zA-Z][\w+.-]*://[^\s/:@]*:)[^\s/@]+@")


def redact_url(url: str) -> str:
    """`url` with the password of its user part and the values of secret-looking query
    parameters replaced by `***`; anything that is not a URL is returned as it is."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.split(':', 1)[0]}:{MASK}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        hidden = [(k, MASK if SECRET_PARAMS.search(k) else v) for k, v in pairs]
        query = urlencode(hidden, safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def mask_secrets(text: str) -> str:
    """`text` with bearer tokens, authorization and API-key values, and the values of the API
    keys in kgviz's environment replaced by `***` (a server may echo its request's headers)."""
    for name in KEY_ENVS:
        value = os.environ.get(name, "")
        if len(value) >= 4:
            text = text.replace(value, MASK)
    text = BEARER.sub(rf"\g<1>{MASK}", text)
    return AUTH_FIELD.sub(rf"\g<1>{MASK}", text)


def redact_text(text: str) -> str:
    """`mask_secrets(text)` with the passwords of the URLs in it replaced too."""
    return mask_secrets(URL_PASSWORD.sub(rf"\g<1>{MASK}@", text))
