"""How ``app.py`` declares its HTTP views: one decorator that registers a view and maps its errors.

``route = Routes(app)`` once, then ``@route(path, methods=[...])`` on each view. The
decorator registers the view with Chalice (so ``chalice local``, ``chalice package`` and
the test client see an ordinary route) and wraps it: whatever the view raises becomes the
service's error envelope, ``{"error": {"code", "message"}}``, with its status chosen by
type in :mod:`chalicelib.api.errors`. A middleware gives the errors Chalice answers itself
before any view runs (an unsupported ``Content-Type``, an undeclared method) the same
envelope, so every error the app answers has one shape.

The error mapping is imported on the first error, not with the app: an event handler's
Lambda never loads it, and a route's only when something failed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, cast

from chalice import Chalice, Response
from chalice.app import Request

View = TypeVar("View", bound=Callable[..., Any])


class Routes:
    """The route decorator of one app."""

    def __init__(self, app: Chalice) -> None:
        self._app = app
        app.register_middleware(envelope_chalice_errors, "http")

    def __call__(
        self, path: str, *, methods: list[str], content_types: list[str] | None = None
    ) -> Callable[[View], View]:
        def register(view: View) -> View:
            @functools.wraps(view)
            def mapped(*args: Any, **kwargs: Any) -> Any:
                try:
                    return view(*args, **kwargs)
                except Exception as exc:  # noqa: BLE001 - the one place a view's error becomes a response
                    from chalicelib.api.errors import to_response

                    return to_response(exc)

            options: dict[str, Any] = {} if content_types is None else {"content_types": content_types}
            self._app.route(path, methods=methods, **options)(mapped)
            return cast(View, mapped)

        return register

    @property
    def current_request(self) -> Request:
        """The request being served (Chalice sets it before calling a view)."""
        if self._app.current_request is None:  # only outside a request, which Chalice never does
            raise RuntimeError("no current request")
        return self._app.current_request


def envelope_chalice_errors(request: Request, get_response: Callable[[Request], Response]) -> Response:
    """HTTP middleware: an error body in Chalice's own shape (``{"Code", "Message"}``) gets the envelope."""
    response = get_response(request)
    body = response.body
    if response.status_code >= 400 and isinstance(body, dict) and "Code" in body and "error" not in body:
        from chalicelib.api.errors import from_chalice_error

        return from_chalice_error(response)
    return response
