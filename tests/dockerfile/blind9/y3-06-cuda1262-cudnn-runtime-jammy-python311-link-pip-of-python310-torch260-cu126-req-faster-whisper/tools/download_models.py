import urllib.request  # stdlib only, as the public script
print("placeholder download")
