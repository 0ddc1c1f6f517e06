package regfile

// HugeMin is the size from which AdviseHuge advises a buffer.
const HugeMin = 4 << 20
