print("chappie")
