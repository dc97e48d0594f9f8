import KernelTemplates

// The depthwise kernels for the filters the models use (3×3 and 5×5 at
// stride 1 and 2, undilated), compiled once per shape so that the tap
// loops unroll and neighbouring pixels share their input loads: the
// templates of KernelTemplates (DepthwiseInteriorTemplate.swift) on this
// family's 8-lane vectors. They cover the interior of each output row;
// `DepthwiseMicrokernels.swift` holds the general kernels for everything else.

/// The interior pixels (those whose filter columns all land inside the
/// input) of one output row, for a square 3×3 or 5×5 filter at stride 1
/// or 2 without dilation (`Shape`). Within each segment of the row,
/// channels go 16 at a time in the outer loop (then 8, then one by one),
/// so a group's weights stay in L1 while blocks of 4 pixels sweep the
/// segment with 8 accumulators. Same tap order as the other depthwise
/// kernels, so the results are identical to theirs.
@inline(never)
func depthwiseF32Interior<Shape: DepthwiseInteriorShape>(_ shape: Shape.Type, _ row: DepthwiseInteriorRow) {
    depthwiseInterior(Shape.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, row)
}
