def create_app():
    pass
