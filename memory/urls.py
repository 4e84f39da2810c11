from django.urls import path

from memory import views

# Included at novels/<int:novel_id>/memory/.
# Int kwargs: novel_id, chapter (a chapter number), character_id, state_id, fact_id, thread_id.
app_name = "memory"
urlpatterns = [
    path("", views.overview, name="overview"),
    path("summary/", views.global_summary, name="global_summary"),
    path("summary/edit/", views.global_summary_edit, name="global_summary_edit"),
    path("chapters/", views.chapter_summaries, name="chapter_summaries"),
    path("chapters/<int:chapter>/edit/", views.chapter_summary_edit, name="chapter_summary_edit"),
    path("characters/", views.characters, name="characters"),
    path("characters/<int:character_id>/", views.character_history, name="character_history"),
    path("characters/<int:character_id>/edit/", views.character_edit, name="character_edit"),
    path("states/<int:state_id>/edit/", views.character_state_edit, name="character_state_edit"),
    path("facts/", views.facts, name="facts"),
    path("facts/new/", views.fact_create, name="fact_create"),
    path("facts/<int:fact_id>/edit/", views.fact_edit, name="fact_edit"),
    path("facts/<int:fact_id>/delete/", views.fact_delete, name="fact_delete"),
    path("threads/", views.threads, name="threads"),
    path("threads/<int:thread_id>/edit/", views.thread_edit, name="thread_edit"),
]
