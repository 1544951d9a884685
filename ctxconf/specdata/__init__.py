"""The spec folder as data: where it is (`paths`, `folder`), its schemas (`schemas`), what is
wrong in one of its files (`problems`), and the one reader every layer uses (`reader`)."""
