"""FastAPI dependencies: the service and settings live on ``app.state`` (set by ``create_app``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.games import GameService
from app.settings import Settings


def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


ServiceDep = Annotated[GameService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
