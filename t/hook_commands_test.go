package t

// hookCommands are the script commands of the hook part (owned by that part).
func hookCommands() map[string]scriptCmd { return nil }
