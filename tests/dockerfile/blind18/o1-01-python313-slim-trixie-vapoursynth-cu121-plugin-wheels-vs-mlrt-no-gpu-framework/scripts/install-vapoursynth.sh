#!/usr/bin/env bash
# Reduced from the repository's scripts/install-vapoursynth.sh (43ff717): the cu121 variant's CUDA plugin lines
set -euo pipefail
variant="${1:?usage: install-vapoursynth.sh generic|cu121|cu129}"
python3 -m pip install --upgrade pip setuptools wheel
python3 -m pip install --upgrade vapoursynth
python3 -m pip install --upgrade \
    --extra-index-url "https://aliceteaparty.github.io/vapoursynth-api4-wheels/simple/" \
    "vapoursynth-bm3dcuda-${variant}" \
    "vapoursynth-dfttest2-${variant}" \
    "vs-mlrt-${variant}" \
    vs-nlq vapoursynth-nnedi3cl vapoursynth-knlm
python3 -m pip install --upgrade vapoursynth-vszip vapoursynth-vszipcu
python3 -m pip install --upgrade vapoursynth-lsmas vapoursynth-mvtools vsjetpack
python3 -m pip check
