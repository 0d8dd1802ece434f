print("rexsim")
