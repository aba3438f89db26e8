from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CONF_DIR = REPO / "conf"


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
