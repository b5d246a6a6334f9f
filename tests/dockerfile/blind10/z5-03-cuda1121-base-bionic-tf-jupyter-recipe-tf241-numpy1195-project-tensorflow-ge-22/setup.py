import setuptools
from setuptools import setup

setup(
    name='condor_tensorflow',
    version='1.0.0',
    packages=setuptools.find_packages(),
    install_requires=['scikit-learn', 'numpy', 'tensorflow>=2.2'],
    python_requires='>=3.6',
)
