print("never built")
