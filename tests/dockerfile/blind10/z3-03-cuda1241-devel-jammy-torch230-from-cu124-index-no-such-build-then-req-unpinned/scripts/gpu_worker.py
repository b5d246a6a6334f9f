# placeholder: polls a job queue and trains
