from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from config.health import healthz

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="novels:list", permanent=False), name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("novels/", include("novels.urls")),
    path("novels/<int:novel_id>/", include("generation.urls")),
    path("novels/<int:novel_id>/memory/", include("memory.urls")),
]
