from __future__ import annotations

import pytest


@pytest.fixture
def novel(db):
    from novels.models import Novel

    return Novel.objects.create(title="The Lighthouse Keeper", language="en", genre="mystery",
                                premise="A keeper finds a letter in a bottle.", target_chapters=60)


@pytest.fixture
def zh_novel(db):
    from novels.models import Novel

    return Novel.objects.create(title="灯塔守夜人", language="zh", genre="悬疑",
                                premise="一个守夜人在漂流瓶里发现了一封写给自己的信。", target_chapters=60)


@pytest.fixture
def job(novel):
    """A running job: stream appends only land on running rows."""
    from generation.models import GenerationJob, JobKind, JobStatus

    return GenerationJob.objects.create(novel=novel, kind=JobKind.DRAFT, status=JobStatus.RUNNING, chapter_number=1)


@pytest.fixture
def zh_job(zh_novel):
    from generation.models import GenerationJob, JobKind, JobStatus

    return GenerationJob.objects.create(novel=zh_novel, kind=JobKind.ARCHITECTURE, status=JobStatus.RUNNING)
