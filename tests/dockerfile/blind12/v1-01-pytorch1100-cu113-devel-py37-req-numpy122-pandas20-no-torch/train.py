# placeholder for the project sources (train.py, models.py ...)
