"""HTTP and websocket routes, one router per concern (pages, api, websocket)."""
