# Reduced: install_requires are the lines of requirements.txt plus setuptools.
from os.path import dirname, join, realpath
from setuptools import setup, find_packages

with open(join(dirname(realpath(__file__)), 'requirements.txt')) as f:
    install_reqs = f.read().splitlines()
install_reqs.append('setuptools')

setup(name='condor_pytorch', version='1.0.0', packages=find_packages(), install_requires=install_reqs)
