package t

// proofCommands are the script commands of the proof part (owned by that part).
func proofCommands() map[string]scriptCmd { return nil }
