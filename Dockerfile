# One image for the web server and the Celery worker (see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# A throwaway key: settings would otherwise write a real one into the image's var/.
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && rm -f var/secret_key \
    && useradd --system --home-dir /app --shell /usr/sbin/nologin inkstone \
    && mkdir -p var && chown -R inkstone:inkstone var

USER inkstone
EXPOSE 8000
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "2", "--threads", "4", "--timeout", "120"]
