"""A wheel built from the repository carries spec/ and schemas/, and works from any folder."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxconf.reference import AREAS
from tests.paths import ROOT

pytestmark = pytest.mark.slow  # builds and installs a wheel


def _once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """The folder `name`, filled by `make` once for the whole run: the suite's workers share the
    run's temporary root, and the first to ask makes it while the others wait on its lock."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if "PYTEST_XDIST_WORKER" in os.environ else base) / name
    with (folder.parent / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".made").exists():
            shutil.rmtree(folder, ignore_errors=True)  # one that failed halfway
            folder.mkdir()
            make(folder)
            (folder / ".made").touch()
    return folder


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout (`ctxconf/`; setuptools leaves a build/ folder in the tree it
    builds) and the wheel built from it (`dist/`)."""
    return _once(tmp_path_factory, "wheel-build", _build)


def _build(folder: Path) -> None:
    source = folder / "ctxconf"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "reports", "__pycache__", "*.egg-info", ".*_cache"
        ),
    )
    out = folder / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def source(built: Path) -> Path:
    return built / "ctxconf"


@pytest.fixture
def wheel(built: Path) -> Path:
    (found,) = (built / "dist").glob("ctxconf-*.whl")
    return found


@pytest.fixture
def env_dir(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed the way `pip install .` installs it: not editable."""
    return (
        _once(tmp_path_factory, "wheel-venv", lambda folder: _install(wheel, folder / "env"))
        / "env"
    )


def _install(wheel: Path, env_dir: Path) -> None:
    # The dependencies come from the interpreter running the tests, so no download is needed;
    # so does pip, which installs into the venv from outside it (--python), as it would inside.
    venv.EnvBuilder(with_pip=False, system_site_packages=True).create(env_dir)
    python = env_dir / "bin" / "python"
    site = subprocess.run(
        [
            sys.executable,
            "-c",
            "import jsonschema, os; print(os.path.dirname(os.path.dirname(jsonschema.__file__)))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (next((env_dir / "lib").glob("python*")) / "site-packages" / "deps.pth").write_text(site + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--force-reinstall",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )


# The checkout's folders and the package each is installed as.
_INSTALLED_AS = {
    "ctxconf": "ctxconf",
    "reference": "ctxconf/reference",
    "runner": "ctxconf/runner",
    "proxy": "ctxconf/proxy",
    "spec": "ctxconf/spec",
    "schemas": "ctxconf/schemas",
}


def test_the_wheel_carries_every_file_of_the_package_folders(wheel: Path) -> None:
    """Every file of the installed folders, an area's schemas and fuzzing included, is in the
    wheel: a package or data file setuptools is not told of would be missing after `pip
    install`, and only there."""
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"{installed}/{path.relative_to(ROOT / folder).as_posix()}"
        for folder, installed in _INSTALLED_AS.items()
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert expected, "no files found in the package folders"
    missing = sorted(expected - names)
    assert not missing, f"{len(missing)} files missing from {wheel.name}: {missing[:20]}"


def test_installed_wheel_works_from_any_folder(env_dir: Path, tmp_path: Path) -> None:
    python = env_dir / "bin" / "python"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    fuzz = ["fuzz", "--impl", "reference", "--examples", "5", "--seed", "1", "--area"]
    commands = [["validate"], ["run", "--impl", "reference", "--json", "r.json"]]
    # Fuzzing loads each area's fuzz package, which only the wheel's package list ships.
    commands += [[*fuzz, area, "--out", f"{area}-findings"] for area in AREAS]
    for command in commands:
        done = subprocess.run(
            [str(env_dir / "bin" / "ctxconf"), *command],
            cwd=elsewhere,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"ctxconf {' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    imported = subprocess.run(
        [str(python), "-c", "import ctxconf.specdata.paths as p; print(p.bundled_spec_dir())"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(env_dir) in imported, "the wheel's spec must come from the installed package"


def test_python_m_ctxconf_from_a_checkout_after_a_plain_install(
    env_dir: Path, source: Path
) -> None:
    # From the repository root, the checkout's ctxconf/ comes first on sys.path, ahead of the
    # installed package; reference/ and runner/ must still be found, beside it.
    python = str(env_dir / "bin" / "python")
    for command in (["--version"], ["check"]):
        done = subprocess.run(
            [python, "-m", "ctxconf", *command], cwd=source, capture_output=True, text=True
        )
        assert done.returncode == 0, (
            f"python -m ctxconf {command[0]}:\n{done.stdout}\n{done.stderr}"
        )
    where = subprocess.run(
        [
            python,
            "-c",
            "import ctxconf.runner as r, ctxconf.reference as f; print(r.__file__, f.__file__)",
        ],
        cwd=source,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert [Path(w).parent.name for w in where] == ["runner", "reference"]
    assert all(Path(w).is_relative_to(source) for w in where), where


def test_installed_spec_commands_work_on_the_checkout_and_never_write_the_package(
    env_dir: Path, source: Path, tmp_path: Path
) -> None:
    # A spec editor's checkout, edited: from inside it, the installed command sees the edit.
    checkout = tmp_path / "checkout"
    shutil.copytree(source / "spec", checkout / "spec")
    (checkout / "docs").mkdir()
    loop = checkout / "spec" / "loop.json"
    text = loop.read_text(encoding="utf-8")
    loop.write_text(text.replace('"Same result as {target}."', '"Same as {target}."', 1))
    ctxconf = str(env_dir / "bin" / "ctxconf")
    seen = subprocess.run(
        [ctxconf, "regen", "--check"], cwd=checkout / "docs", capture_output=True, text=True
    )
    assert seen.returncode == 1, f"{seen.stdout}\n{seen.stderr}"
    assert f"spec: {(checkout / 'spec').resolve()} (found above" in seen.stderr
    # Outside any checkout the installed spec is used, and never written.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    refused = subprocess.run([ctxconf, "regen"], cwd=elsewhere, capture_output=True, text=True)
    assert refused.returncode == 2, f"{refused.stdout}\n{refused.stderr}"
    assert "installed with ctxconf" in refused.stderr and "Traceback" not in refused.stderr
