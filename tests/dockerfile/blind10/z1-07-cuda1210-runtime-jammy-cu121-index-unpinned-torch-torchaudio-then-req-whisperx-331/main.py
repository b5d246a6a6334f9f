# placeholder: WhisperX transcription API
