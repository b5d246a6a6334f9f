# placeholder Celery app (stored in the repository, not read)
