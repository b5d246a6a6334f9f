#!/bin/bash
# placeholder
