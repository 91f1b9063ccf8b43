"""The pages of `authorize`: the login form and the error page, in Russian or English."""

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
"""


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


def login_page(lang: str, hidden: dict[str, str], message: str | None = None, login: str = "") -> str:
    text = TEXT[lang]
    fields = "".join(
        f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">' for name, value in hidden.items()
    )
    alert = f'<p class="message" role="alert">{escape(message)}</p>' if message else ""
    body = (
        f"<h1>{escape(text['heading'])}</h1>{alert}"
        '<form method="post" action="">'
        f"{fields}"
        f'<label for="login">{escape(text["login"])}</label>'
        f'<input id="login" name="login" type="email" autocomplete="username" required autofocus '
        f'value="{escape(login)}">'
        f'<label for="password">{escape(text["password"])}</label>'
        '<input id="password" name="password" type="password" autocomplete="current-password" required>'
        '<div class="actions">'
        f'<button type="submit" name="action" value="login">{escape(text["submit"])}</button>'
        f'<button type="submit" name="action" value="cancel" class="secondary" formnovalidate>'
        f"{escape(text['cancel'])}</button>"
        "</div></form>"
    )
    return _page(lang, text["title"], body)


def error_page(lang: str, description: str) -> str:
    text = TEXT[lang]
    body = (
        f"<h1>{escape(text['error_title'])}</h1>"
        f'<p class="message" role="alert">{escape(description)}</p><p>{escape(text["error_help"])}</p>'
    )
    return _page(lang, text["error_title"], body)


def message(lang: str, key: str, **values: int) -> str:
    return TEXT[lang][key].format(**values)
