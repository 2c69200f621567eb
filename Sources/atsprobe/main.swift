print("atsprobe")
