# placeholder for the orchestrator API
