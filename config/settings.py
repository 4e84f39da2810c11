"""The one settings module. Everything that differs between machines comes from
environment variables; with none set, Inkstone runs on SQLite under var/ and a
filesystem broker, so a fresh checkout needs no servers."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("INKSTONE_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def _secret_key() -> str:
    key = os.environ.get("SECRET_KEY")
    if key:
        return key
    # A stable per-checkout key so sessions survive restarts of the dev server.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        import secrets

        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = _env_bool("DEBUG", default=False)
ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h.strip()
]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "accounts",
    "novels",
    "memory",
    "generation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(VAR_DIR / "inkstone.sqlite3"),
            # A file, not :memory:, so a separate worker process sees the test database.
            "TEST": {"NAME": str(VAR_DIR / "test-inkstone.sqlite3")},
            "OPTIONS": {
                "timeout": 30,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
            },
        }
    }
# Test-only: lets a worker process started by the test suite open the test database.
if os.environ.get("INKSTONE_DATABASE_NAME"):
    DATABASES["default"]["NAME"] = os.environ["INKSTONE_DATABASE_NAME"]
DATABASE_VENDOR = DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- broker -----------------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"visibility_timeout": 3600}
else:
    _broker_dir = Path(os.environ.get("INKSTONE_BROKER_DIR", VAR_DIR / "broker"))
    for _sub in ("out", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "data_folder_processed": str(_broker_dir / "processed"),
        # Without it kombu writes its exchange table to ./control in the working directory.
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
BROKER_KIND = "redis" if REDIS_URL else "filesystem"
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("INKSTONE_QUEUE", "inkstone")
# The job row is the truth about a task; Celery results are never read.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Only ever set by unit tests that exercise a service without a worker.
CELERY_TASK_ALWAYS_EAGER = False

# --- LLM --------------------------------------------------------------------
OPENAI_API_KEY = os.environ.get("OPENAI_API_KEY", "")
OPENAI_BASE_URL = os.environ.get("OPENAI_BASE_URL", "")
LLM_TIMEOUT_SECONDS = float(os.environ.get("INKSTONE_LLM_TIMEOUT", "120"))
LLM_MAX_RETRIES = int(os.environ.get("INKSTONE_LLM_MAX_RETRIES", "3"))
# Site defaults per role; a novel may override each.
LLM_DEFAULT_MODELS = {
    "planner": os.environ.get("INKSTONE_MODEL_PLANNER", "gpt-4o-mini"),
    "writer": os.environ.get("INKSTONE_MODEL_WRITER", "gpt-4o-mini"),
    "extractor": os.environ.get("INKSTONE_MODEL_EXTRACTOR", "gpt-4o-mini"),
    "reviewer": os.environ.get("INKSTONE_MODEL_REVIEWER", "gpt-4o-mini"),
}
# Seconds without a heartbeat after which a running job counts as orphaned.
JOB_HEARTBEAT_STALE_SECONDS = int(os.environ.get("INKSTONE_JOB_STALE_SECONDS", "60"))

# --- LLM layer (owned by llm) ---
# Backoff between retries: base * 2**attempt, and never longer than the cap,
# even when a server's Retry-After asks for more (the job would look hung).
LLM_RETRY_BASE_SECONDS = float(os.environ.get("INKSTONE_LLM_RETRY_BASE", "1.0"))
LLM_RETRY_MAX_WAIT_SECONDS = float(os.environ.get("INKSTONE_LLM_RETRY_MAX_WAIT", "30"))
# Test-only: real servers reject unknown request fields; the test server uses
# them to answer like the demo model.
LLM_SEND_TASK_METADATA = _env_bool("INKSTONE_LLM_TASK_METADATA", default=False)
# --- end LLM layer ---

# --- auth, i18n, static --------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "novels:list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

DATA_UPLOAD_MAX_MEMORY_SIZE = 8 * 1024 * 1024
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "httpx2": {"level": "WARNING"}, "openai": {"level": "WARNING"}},
}
