from django.urls import path

from novels import views

app_name = "novels"
urlpatterns = [
    path("", views.novel_list, name="list"),
    path("new/", views.novel_create, name="create"),
    path("<int:novel_id>/", views.novel_detail, name="detail"),
    path("<int:novel_id>/settings/", views.novel_settings, name="settings"),
    path("<int:novel_id>/members/", views.member_set, name="member_set"),
    path("<int:novel_id>/members/<int:membership_id>/remove/", views.member_remove, name="member_remove"),
    path("<int:novel_id>/delete/", views.novel_delete, name="delete"),
]
