"""The pages of `authorize` (the login form and the error page) and of RFC 8628's verification page (the code,
then the login form with what the device asks for, then the outcome), in Russian or English. No script runs
on them; the one style sheet is allowed by its hash (`STYLE_SOURCE`)."""

import base64
import hashlib
from html import escape

TEXT = {
    "ru": {
        "title": "Вход",
        "heading": "Вход в аккаунт",
        "login": "Электронная почта",
        "password": "Пароль",
        "submit": "Войти",
        "cancel": "Отмена",
        "wrong": "Неверная почта или пароль.",
        "locked": "Слишком много неудачных попыток. Попробуйте снова через {minutes} мин.",
        "expired": "Страница устарела. Введите данные ещё раз.",
        "error_title": "Ошибка входа",
        "error_help": "Приложение передало неверные параметры. Вернитесь в приложение и попробуйте снова.",
        "device_title": "Подключение устройства",
        "device_heading": "Подключите устройство",
        "device_code": "Код с экрана устройства",
        "device_help": "Введите код, который показывает телевизор или приставка.",
        "continue": "Продолжить",
        "device_asks": "«{client}» просит доступ к вашему аккаунту",
        "device_check": "Код на устройстве: {code}. Убедитесь, что устройство показывает именно его.",
        "device_scopes": "Приложение получит:",
        "allow": "Войти и разрешить",
        "deny": "Отказать",
        "unknown_code": "Такого кода нет или он устарел. Проверьте код или начните заново на устройстве.",
        "too_many": "Слишком много попыток. Попробуйте снова через {minutes} мин.",
        "approved": "Готово: устройство подключено. Вернитесь к нему.",
        "denied": "Доступ не разрешён: устройство не подключено. Страницу можно закрыть.",
        "scope_account": "ваш аккаунт: вход на других устройствах",
        "scope_user_data": "ваши данные в приложениях",
        "scope_phoneconfirm": "подтверждение номера телефона",
        "scope_launcher_moderation": "модерация афиш лаунчера",
    },
    "en": {
        "title": "Sign in",
        "heading": "Sign in to your account",
        "login": "E-mail",
        "password": "Password",
        "submit": "Sign in",
        "cancel": "Cancel",
        "wrong": "Wrong e-mail or password.",
        "locked": "Too many failed attempts. Try again in {minutes} min.",
        "expired": "This page expired. Please enter your details again.",
        "error_title": "Sign-in error",
        "error_help": "The application sent invalid parameters. Go back to the application and try again.",
        "device_title": "Connect a device",
        "device_heading": "Connect a device",
        "device_code": "Code on the device's screen",
        "device_help": "Enter the code your TV or set-top box shows.",
        "continue": "Continue",
        "device_asks": "“{client}” asks for access to your account",
        "device_check": "Code on the device: {code}. Make sure it is the one your device shows.",
        "device_scopes": "The application will get:",
        "allow": "Sign in and allow",
        "deny": "Deny",
        "unknown_code": "No device waits for this code, or it expired. Check it, or start again on the device.",
        "too_many": "Too many attempts. Try again in {minutes} min.",
        "approved": "Done: the device is connected. Go back to it.",
        "denied": "Access denied: the device was not connected. You may close this page.",
        "scope_account": "your account: signing in other devices",
        "scope_user_data": "your data in the apps",
        "scope_phoneconfirm": "phone number confirmation",
        "scope_launcher_moderation": "moderation of the launcher's posters",
    },
}
STYLE = """
body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d1f23}
main{max-width:24rem;margin:0 auto;padding:2rem 1.25rem}
h1{font-size:1.4rem;margin:0 0 1.25rem}
label{display:block;margin:.9rem 0 .3rem;font-weight:600}
input{box-sizing:border-box;width:100%;padding:.75rem;font-size:1rem;border:1px solid #9aa0a8;border-radius:.4rem}
input:focus,button:focus{outline:3px solid #2f6fed;outline-offset:1px}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.8rem;font-size:1rem;border-radius:.4rem;border:1px solid #2f6fed;cursor:pointer}
button[type=submit]{background:#2f6fed;color:#fff}
button.secondary{background:#fff;color:#2f6fed}
.message{background:#fdecea;border:1px solid #e0a29a;padding:.75rem;border-radius:.4rem}
.done{background:#e8f4ea;border:1px solid #9ac9a3;padding:.75rem;border-radius:.4rem}
#user_code{text-transform:uppercase;letter-spacing:.15em;font-size:1.3rem}
"""
# Content-Security-Policy's source for the page's one <style> element: its hash, so nothing else inline applies.
STYLE_SOURCE = "'sha256-" + base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii") + "'"


def language(accept_language: str) -> str:
    """`ru` when Russian is preferred over English in Accept-Language, else `en`."""
    best, best_q = "en", -1.0
    for part in accept_language.split(","):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in TEXT and q > best_q:
            best, best_q = primary, q
    return best


def _page(lang: str, title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>"
    )


def hidden_fields(hidden: dict[str, str]) -> str:
    return "".join(
        f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">' for name, value in hidden.items()
    )


def alert(message: str | None) -> str:
    return f'<p class="message" role="alert">{escape(message)}</p>' if message else ""


def credential_form(lang: str, hidden: dict[str, str], login: str, actions: tuple[tuple[str, str], ...]) -> str:
    """The login form: e-mail, password, and buttons (action value, text); the first signs in, the others
    leave without the fields filled in."""
    text = TEXT[lang]
    buttons = "".join(
        f'<button type="submit" name="action" value="{value}">{escape(label)}</button>'
        if place == 0
        else f'<button type="submit" name="action" value="{value}" class="secondary" formnovalidate>'
        f"{escape(label)}</button>"
        for place, (value, label) in enumerate(actions)
    )
    return (
        '<form method="post" action="">'
        f"{hidden_fields(hidden)}"
        f'<label for="login">{escape(text["login"])}</label>'
        f'<input id="login" name="login" type="email" autocomplete="username" required autofocus '
        f'value="{escape(login)}">'
        f'<label for="password">{escape(text["password"])}</label>'
        '<input id="password" name="password" type="password" autocomplete="current-password" required>'
        f'<div class="actions">{buttons}</div></form>'
    )


def login_page(lang: str, hidden: dict[str, str], message: str | None = None, login: str = "") -> str:
    text = TEXT[lang]
    actions = (("login", text["submit"]), ("cancel", text["cancel"]))
    body = f"<h1>{escape(text['heading'])}</h1>{alert(message)}{credential_form(lang, hidden, login, actions)}"
    return _page(lang, text["title"], body)


def device_code_page(lang: str, hidden: dict[str, str], message: str | None = None, typed: str = "") -> str:
    """RFC 8628's verification page, first step: the code the device shows."""
    text = TEXT[lang]
    body = (
        f"<h1>{escape(text['device_heading'])}</h1>{alert(message)}"
        f"<p>{escape(text['device_help'])}</p>"
        '<form method="post" action="">'
        f"{hidden_fields(hidden)}"
        f'<label for="user_code">{escape(text["device_code"])}</label>'
        '<input id="user_code" name="user_code" type="text" autocomplete="one-time-code" autocapitalize="characters" '
        f'spellcheck="false" maxlength="32" required autofocus value="{escape(typed)}">'
        f'<div class="actions"><button type="submit" name="action" value="code">{escape(text["continue"])}</button>'
        "</div></form>"
    )
    return _page(lang, text["device_title"], body)


def device_consent_page(
    lang: str,
    hidden: dict[str, str],
    client_name: str,
    code: str,
    scopes: list[str],
    message: str | None = None,
    login: str = "",
) -> str:
    """Second step: which application asks for what, under which code, and the login form to allow or deny."""
    text = TEXT[lang]
    granted = "".join(f"<li>{escape(text.get(f'scope_{scope}', scope))}</li>" for scope in scopes)
    actions = (("approve", text["allow"]), ("deny", text["deny"]))
    body = (
        f"<h1>{escape(text['device_asks'].format(client=client_name))}</h1>{alert(message)}"
        f"<p><strong>{escape(text['device_check'].format(code=code))}</strong></p>"
        + (f"<p>{escape(text['device_scopes'])}</p><ul>{granted}</ul>" if granted else "")
        + credential_form(lang, hidden, login, actions)
    )
    return _page(lang, text["device_title"], body)


def device_done_page(lang: str, approved: bool) -> str:
    text = TEXT[lang]
    outcome = text["approved" if approved else "denied"]
    body = f'<h1>{escape(text["device_heading"])}</h1><p class="done" role="status">{escape(outcome)}</p>'
    return _page(lang, text["device_title"], body)


def error_page(lang: str, description: str) -> str:
    text = TEXT[lang]
    body = (
        f"<h1>{escape(text['error_title'])}</h1>"
        f'<p class="message" role="alert">{escape(description)}</p><p>{escape(text["error_help"])}</p>'
    )
    return _page(lang, text["error_title"], body)


def message(lang: str, key: str, **values: int) -> str:
    return TEXT[lang][key].format(**values)
