"""The packages, found rather than listed: an area's folder, its fuzzing included, ships as it is
added (pyproject.toml holds everything else)."""

from setuptools import find_packages, setup

# The checkout's folders and the package each is installed as (pyproject.toml's package-dir).
INSTALLED_AS = {
    "ctxconf": "ctxconf",
    "reference": "ctxconf.reference",
    "runner": "ctxconf.runner",
    "probe": "ctxconf.probe",
    "audit": "ctxconf.audit",
    "proxy": "ctxconf.proxy",
    "spec": "ctxconf.spec",
    "schemas": "ctxconf.schemas",
}


def _packages(folder: str, name: str) -> list[str]:
    return [name, *(f"{name}.{found}" for found in find_packages(folder))]


setup(packages=[p for folder, name in INSTALLED_AS.items() for p in _packages(folder, name)])
