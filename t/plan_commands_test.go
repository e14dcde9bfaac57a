package t

// planCommands are the script commands of the plan part (owned by that part).
func planCommands() map[string]scriptCmd { return nil }
