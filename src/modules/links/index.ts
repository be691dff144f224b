// The links module's face: what other modules (and the entry points) may import from it.
// Nothing yet: no other module uses links (the registry wires its routes and types).
export {};
