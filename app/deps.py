"""FastAPI dependencies: the service and settings live on ``app.state`` (set by ``create_app``).

They are ``async def`` on purpose: FastAPI runs a plain ``def`` dependency in its
worker-thread pool, so every request would hop to a thread (up to 40 of them
under load) just to read an attribute.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.service import GameService
from app.settings import Settings


async def get_service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


ServiceDep = Annotated[GameService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
