// The reviews module's face: what other modules (and the entry points) may import from it.
// Nothing yet: the registry wires its routes and types.
export {};
