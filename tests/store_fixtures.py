"""pytest fixtures that run a test on every store backend; import them into a test module:

    from tests.store_fixtures import backend, engine, etcd_server  # noqa: F401

`backend` is parametrized over memory, SQLite in memory, SQLite in a file and etcd (one
etcd per test session, started on loopback; its tests skip when etcd is not installed).
`engine` is an `Engine` on that backend under a key prefix of its own (tests share the
etcd), with short bookmark and freshness timeouts and no background compaction.
"""

from __future__ import annotations

import uuid

import pytest

from kgen.runtime.store import Engine
from kgen.runtime.store.testing import BACKEND_KINDS, EtcdServer, etcd_binary, make_backend


@pytest.fixture(scope="session")
def etcd_server():
    """A loopback etcd for the whole session (skips when etcd is not installed)."""
    binary = etcd_binary()
    if binary is None:
        pytest.skip("etcd is not installed (apt-get install -y etcd-server)")
    with EtcdServer(binary) as server:
        yield server


@pytest.fixture(params=BACKEND_KINDS)
def backend(request, tmp_path):
    """Each backend in turn, empty (etcd: shared, so use a key prefix of your own)."""
    endpoint = request.getfixturevalue("etcd_server").endpoint if request.param == "etcd" else ""
    store = make_backend(request.param, tmp_path, endpoint)
    yield store
    store.close()


@pytest.fixture
def engine(backend):
    """An Engine on `backend` under a fresh key prefix."""
    store_engine = Engine(
        backend,
        prefix=f"/kgen-test-{uuid.uuid4().hex[:8]}/registry/",
        compaction_interval=None,
        bookmark_interval=0.2,
        fresh_timeout=0.3,
    )
    yield store_engine
    store_engine.close()
