from django.urls import path

from generation import views

# Included at novels/<int:novel_id>/. Int kwargs: novel_id, number (chapter), revision_id, card_number, job_id.
app_name = "generation"
urlpatterns = [
    path("architecture/", views.architecture, name="architecture"),
    path("architecture/edit/", views.architecture_edit, name="architecture_edit"),
    path("architecture/generate/", views.architecture_generate, name="architecture_generate"),
    path("blueprint/", views.blueprint, name="blueprint"),
    path("blueprint/plan/", views.blueprint_plan, name="blueprint_plan"),
    path("blueprint/cards/<int:card_number>/edit/", views.card_edit, name="card_edit"),
    path("chapters/<int:number>/", views.chapter, name="chapter"),
    path("chapters/<int:number>/draft/", views.chapter_draft, name="chapter_draft"),
    path("chapters/<int:number>/review/", views.chapter_review, name="chapter_review"),
    path("chapters/<int:number>/revise/", views.chapter_revise, name="chapter_revise"),
    path("chapters/<int:number>/finalize/", views.chapter_finalize, name="chapter_finalize"),
    path("chapters/<int:number>/edit/", views.chapter_edit, name="chapter_edit"),
    path("chapters/<int:number>/revisions/<int:revision_id>/", views.revision, name="revision"),
    path("chapters/<int:number>/revisions/<int:revision_id>/adopt/", views.revision_adopt, name="revision_adopt"),
    path("cascade/", views.cascade, name="cascade_request"),
    path("jobs/", views.job_list, name="jobs"),
    path("jobs/<int:job_id>/", views.job_detail, name="job"),
    path("jobs/<int:job_id>/status/", views.job_status, name="job_status"),
    path("jobs/<int:job_id>/pause/", views.job_pause, name="job_pause"),
    path("jobs/<int:job_id>/resume/", views.job_resume, name="job_resume"),
    path("jobs/<int:job_id>/cancel/", views.job_cancel, name="job_cancel"),
    path("autopilot/", views.autopilot, name="autopilot"),
]
