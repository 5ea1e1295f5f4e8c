"""Play online: the game server (FastAPI, websockets, SQLAlchemy) behind the browser UI in `bestiary.web`."""
