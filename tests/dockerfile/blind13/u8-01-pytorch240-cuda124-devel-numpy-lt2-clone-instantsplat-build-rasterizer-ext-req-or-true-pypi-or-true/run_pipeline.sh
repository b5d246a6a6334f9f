#!/bin/bash
# placeholder for the pipeline script
