print("placeholder app")
