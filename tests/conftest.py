from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CONF_DIR = REPO / "conf"

# MLflow prices the token usage in a trace's spans from a model catalog it first tries to download (a github.com
# release, MLFLOW_MODEL_CATALOG_URI), then from the copy bundled with it. With no network that download fails after
# its retries, ~7 s in each process that logs such a trace (one per pytest run, one per CLI process that runs an LLM
# cell), and MLflow uses the bundled copy anyway: the tests (and the CLI processes they start) go to it directly.
os.environ.setdefault("MLFLOW_MODEL_CATALOG_URI", "")


@pytest.fixture(autouse=True)
def _tracking_uri_does_not_leak() -> object:
    """`mlflow.set_tracking_uri` also sets $MLFLOW_TRACKING_URI for the whole process, and evalkit resolves a
    null tracking URI from that variable: restore it after every test, so one test's store never becomes the
    default of the tests after it."""
    before = os.environ.get("MLFLOW_TRACKING_URI")
    yield
    if before is None:
        os.environ.pop("MLFLOW_TRACKING_URI", None)
    else:
        os.environ["MLFLOW_TRACKING_URI"] = before


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """After the last test (and the session fixtures' teardown): collect what the tests left, while pytest still
    reports an exception raised in a finaliser, then freeze what survives. pytest's closing cleanup runs five full
    collections, and the interpreter one more at exit: on the whole suite's heap (models, caches, reports) those
    took ~20 s after the summary line; frozen objects are skipped, so they take ~0.1 s."""
    gc.collect()
    gc.collect()  # what the first collection's finalisers released
    gc.freeze()
