package normalize

// NormalizeCopy is Normalize without the first pass that returns a
// conforming document as is: tests compare the two.
var NormalizeCopy = normalizeCopy
