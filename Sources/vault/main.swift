VaultCommand.runAndExit()
