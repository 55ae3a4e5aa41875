package dir.lib

secret_path(p) if endswith(p, ".env")

why := "no writes to .env"
