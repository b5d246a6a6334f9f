#!/bin/bash
# placeholder start script (whether stored not checked)
exec ./t-rex -c /home/nobody/config.json
