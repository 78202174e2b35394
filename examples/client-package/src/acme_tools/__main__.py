"""`python -m acme_tools [DATABASE_URL]`: Acme's tools as an MCP server on stdin/stdout (`toolspec-runtime[mcp]`).

An MCP client (an IDE, an agent) starts this command; the SQL tool reads the database at DATABASE_URL (default:
an empty in-memory SQLite database).
"""

from __future__ import annotations

import sys

import sqlalchemy

from acme_tools.generated import serve_mcp
from acme_tools.service import AcmeTools

if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "sqlite://"
    # One connection for the server's life; SQLite's may be used from the worker threads sync tools run on.
    engine = sqlalchemy.create_engine(url, connect_args={"check_same_thread": False} if url.startswith("sqlite") else {})
    serve_mcp(AcmeTools(), context={"databases": {"default": engine.connect()}})
