"""URI references resolved against a base URI (RFC 3986 section 5.2)."""

from __future__ import annotations

import re

# RFC 3986 appendix B: splits any URI reference, keeping absent and empty
# components apart (urllib does not, and mishandles "urn:" bases).
_URI = re.compile(
    r"(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.S
)


def _resolve(base: str, reference: str) -> str:
    r_scheme, r_auth, r_path, r_query, r_frag = _split_uri(reference)
    b_scheme, b_auth, b_path, b_query, _ = _split_uri(base)
    scheme: str | None
    auth: str | None
    query: str | None
    if r_scheme is not None:
        scheme, auth, path, query = r_scheme, r_auth, _remove_dots(r_path), r_query
    elif r_auth is not None:
        scheme, auth, path, query = b_scheme, r_auth, _remove_dots(r_path), r_query
    elif r_path == "":
        scheme, auth, path = b_scheme, b_auth, b_path
        query = r_query if r_query is not None else b_query
    else:
        if r_path.startswith("/"):
            path = _remove_dots(r_path)
        elif b_auth is not None and b_path == "":
            path = _remove_dots("/" + r_path)
        else:
            path = _remove_dots(b_path[: b_path.rfind("/") + 1] + r_path)
        scheme, auth, query = b_scheme, b_auth, r_query
    result = f"{scheme}:" if scheme is not None else ""
    if auth is not None:
        result += f"//{auth}"
    result += path
    if query is not None:
        result += f"?{query}"
    if r_frag is not None:
        result += f"#{r_frag}"
    return result


def _split_uri(uri: str) -> tuple[str | None, str | None, str, str | None, str | None]:
    match = _URI.fullmatch(uri)
    assert match is not None  # every component of the regex is optional
    scheme, authority, path, query, fragment = match.groups()
    return scheme, authority, path, query, fragment


def _remove_dots(path: str) -> str:
    if "." not in path:
        return path
    output: list[str] = []
    segments = path.split("/")
    for position, segment in enumerate(segments):
        last = position == len(segments) - 1
        if segment == ".":
            if last:
                output.append("")
        elif segment == "..":
            if len(output) > 1 or (output and output[0] != ""):
                output.pop()
            if last:
                output.append("")
        else:
            output.append(segment)
    return "/".join(output)


def _without_fragment(uri: str) -> str:
    return uri.partition("#")[0]
