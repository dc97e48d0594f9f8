/// A marker for one instruction-set family of microkernels (AVX2 + FMA, AVX-512, …).
///
/// The templates of this module are `@inlinable` generics over the vector type. A generic
/// specialised in two modules gets one mangled name and shared linkage, so the linker keeps
/// only one of the two copies: were the AVX-512 module and the AVX2 one to specialise a template
/// for the same types, the AVX2 path could end up running the AVX-512 copy. Each family
/// therefore instantiates every template with a marker type of its own (an empty enum declared
/// in its module), which makes its specialisations its own.
public protocol KernelFamily {}
