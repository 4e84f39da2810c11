"""docker-compose.yml and the Dockerfile agree with the settings module.

There is no Docker engine here, so the files are read and checked against
config/settings.py: the variables, hosts, ports, commands, health checks and volumes."""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "worker")
# What the app needs to run in production; all are read by config/settings.py.
PRODUCTION_VARIABLES = {"DATABASE_URL", "REDIS_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS"}


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _settings_variables() -> set[str]:
    source = (ROOT / "config" / "settings.py").read_text()
    pattern = r"""(?:os\.environ\.get\(|os\.environ\[|os\.getenv\(|_env_bool\()\s*["']([A-Z0-9_]+)["']"""
    return set(re.findall(pattern, source))


def _environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {k: "" if v is None else str(v) for k, v in env.items()}


def _interpolate(value: str) -> str:
    """Compose's ${NAME:-default} / ${NAME:?error} / ${NAME}, with nothing set in the shell."""
    value = re.sub(r"\$\{[A-Z0-9_]+:?-([^}]*)\}", r"\1", value)
    value = re.sub(r"\$\{[A-Z0-9_]+:?\?[^}]*\}", "required", value)
    return re.sub(r"\$\{?[A-Z0-9_]+\}?", "", value)


def _command(service: dict) -> str:
    command = service.get("command", "")
    return shlex.join(command) if isinstance(command, list) else str(command)


def test_compose_has_the_four_services(compose):
    assert {"postgres", "redis", "web", "worker"} <= compose["services"].keys()


def test_the_settings_read_the_production_variables():
    missing = PRODUCTION_VARIABLES - _settings_variables()
    assert not missing, f"config/settings.py no longer reads {missing}; update docker-compose.yml and this test"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_every_variable_compose_sets_is_read_by_the_settings(compose, name):
    unknown = set(_environment(compose["services"][name])) - _settings_variables()
    assert not unknown, f"{name} sets {unknown}, which config/settings.py never reads (typo or stale name?)"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_every_production_variable_is_set(compose, name):
    missing = PRODUCTION_VARIABLES - set(_environment(compose["services"][name]))
    assert not missing, f"{name} does not set {missing}"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_secret_key_must_be_given_and_debug_is_off_by_default(compose, name):
    env = _environment(compose["services"][name])
    assert re.fullmatch(r"\$\{SECRET_KEY:\?[^}]+\}", env["SECRET_KEY"]), "SECRET_KEY must be required (${SECRET_KEY:?...})"
    assert _interpolate(env["DEBUG"]).lower() in {"0", "false", "no", "off", ""}


@pytest.mark.parametrize("name", APP_SERVICES)
def test_database_url_points_at_the_postgres_service(compose, name):
    url = urlparse(_interpolate(_environment(compose["services"][name])["DATABASE_URL"]))
    postgres = _environment(compose["services"]["postgres"])
    assert url.scheme in {"postgres", "postgresql"}
    assert (url.hostname, url.port or 5432) == ("postgres", 5432)
    assert url.username == _interpolate(postgres["POSTGRES_USER"])
    assert url.password == _interpolate(postgres["POSTGRES_PASSWORD"])
    assert url.path.lstrip("/") == _interpolate(postgres["POSTGRES_DB"])


@pytest.mark.parametrize("name", APP_SERVICES)
def test_redis_url_points_at_the_redis_service(compose, name):
    url = urlparse(_interpolate(_environment(compose["services"][name])["REDIS_URL"]))
    assert (url.scheme, url.hostname, url.port or 6379) == ("redis", "redis", 6379)


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_wait_for_healthy_postgres_and_redis(compose, name):
    depends = compose["services"][name]["depends_on"]
    assert {s: depends[s]["condition"] for s in ("postgres", "redis")} == {"postgres": "service_healthy", "redis": "service_healthy"}


def test_web_publishes_the_port_gunicorn_binds(compose):
    web = compose["services"]["web"]
    bind = re.search(r"gunicorn\s+\S+.*--bind[ =](\S+):(\d+)", _command(web))
    assert bind, "web must run gunicorn with --bind host:port"
    assert bind.group(1) == "0.0.0.0", "inside a container gunicorn must listen on all interfaces"
    container_ports = {str(p).rsplit(":", 1)[-1].split("/")[0] for p in web["ports"]}
    assert container_ports == {bind.group(2)}
    assert f":{bind.group(2)}/" in str(web["healthcheck"]["test"]), "the health check must ask the bound port"


def test_web_runs_the_real_wsgi_module(compose):
    module = re.search(r"gunicorn\s+([\w.]+)(?::(\w+))?", _command(compose["services"]["web"]))
    assert module
    wsgi = importlib.import_module(module.group(1))
    assert callable(getattr(wsgi, module.group(2) or "application"))


def test_worker_runs_the_real_celery_app(compose):
    from celery import Celery

    command = shlex.split(_command(compose["services"]["worker"]))
    assert command[:2] == ["celery", "-A"] and "worker" in command
    app_module = importlib.import_module(command[2])
    assert isinstance(getattr(app_module, "celery_app", None) or getattr(app_module, "app", None), Celery)


@pytest.mark.parametrize("name", ["postgres", "redis", "web", "worker"])
def test_every_service_has_a_health_check(compose, name):
    check = compose["services"][name].get("healthcheck") or {}
    assert check.get("test") and not check.get("disable"), f"{name} has no health check"


def test_volumes_are_named_and_declared(compose):
    declared = set(compose.get("volumes") or {})
    for name, service in compose["services"].items():
        for mount in service.get("volumes", []):
            source = mount.split(":", 1)[0] if isinstance(mount, str) else mount.get("source")
            assert source in declared, f"{name} mounts {source!r}: use a named volume declared under volumes:"


@pytest.mark.parametrize(("name", "path"), [("postgres", "/var/lib/postgresql/data"), ("redis", "/data")])
def test_data_services_keep_their_data_on_a_named_volume(compose, name, path):
    mounts = [m for m in compose["services"][name]["volumes"] if str(m).endswith(f":{path}")]
    assert mounts, f"{name} must keep {path} on a named volume"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_services_build_from_the_dockerfile(compose, name):
    build = compose["services"][name]["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
    assert (ROOT / context / dockerfile).resolve() == ROOT / "Dockerfile"


def test_dockerfile_installs_the_pinned_requirements_and_collects_static():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim\b", text, re.M)
    assert "pip install -r requirements.txt" in text
    assert "manage.py collectstatic --noinput" in text
    requirements = (ROOT / "requirements.txt").read_text().lower()
    assert "gunicorn==" in requirements and "celery[redis]==" in requirements


def test_dockerignore_keeps_local_state_and_secrets_out_of_the_image():
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".venv", "var", ".git", ".env"} <= ignored


def test_web_health_check_script_is_valid_python(compose):
    test = compose["services"]["web"]["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python", "-c"]
    compile(test[3], "<web healthcheck>", "exec")
