/**
 * OpenCL's CL_OUT_OF_RESOURCES (-5, cl.h): "a failure to allocate resources required by the OpenCL implementation on the
 * device" (the OpenCL API specification, for clEnqueueReadBuffer, clEnqueueNDRangeKernel and most calls that queue work). It
 * is the device running out of what a buffer or a kernel launch needs (NVIDIA's runtime also returns it at the next blocking
 * call after a kernel that faulted). Returned to the caller it is a catchable-oom; OpenCV's ocl.cpp and the C++ bindings throw
 * it (cv::Exception "OpenCL error CL_OUT_OF_RESOURCES (-5) during call: clEnqueueReadBuffer(…)", cl::Error), and thrown where
 * nothing catches it the process aborts. The device's platform is the one the lines around name. The status's other
 * allocation failures (CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_HOST_MEMORY) are tailAllocFailure's.
 */
import { shrinkPeak } from '../fixes';
import { thrownUncaught } from './lineContext';
import { platformNear } from './otherOom';
import type { Signature } from './types';

const CL_OUT_OF_RESOURCES = /\bCL_OUT_OF_RESOURCES\b/;
/** Lines above an abort searched for the same status printed first (OpenCV's build log "Status -5: CL_OUT_OF_RESOURCES"). */
const SAME_STATUS_ABOVE_LINES = 8;

const outOfResources: Signature = {
  id: 'opencl-out-of-resources',
  platform: 'cpu',
  needles: ['CL_OUT_OF_RESOURCES'],
  match(line) {
    if (!CL_OUT_OF_RESOURCES.test(line.content) || /warn/i.test(line.content)) return undefined;
    // OpenVINO's GPU plugin ends the process on it (ForceExit: "Due to the driver bug any subsequent OpenCL API call will cause
    // application hang, so GPU plugin can't finish correctly. …", then std::_Exit; "[GPU] force exit." in its log).
    const forced = /\bGPU plugin can't finish correctly\b/.test(line.content) || [1, 2, 3].some((k) => /\[GPU\] force exit\b|\bGPU plugin can't finish correctly\b/.test(line.next(k) ?? ''));
    const aborted = forced || thrownUncaught(line);
    const platform = platformNear(line);
    // The status printed a few lines above the uncaught exception that carries it is the same failure.
    const earlier = aborted ? [...Array(SAME_STATUS_ABOVE_LINES).keys()].map((k) => k + 1).filter((k) => CL_OUT_OF_RESOURCES.test(line.previous(k) ?? '')) : [];
    return {
      signature: 'opencl-out-of-resources',
      role: 'failure',
      kind: aborted ? 'runtime-abort' : 'catchable-oom',
      platform,
      catchable: !aborted,
      summary: `${aborted ? 'Process aborted: ' : ''}OpenCL ran out of device resources (CL_OUT_OF_RESOURCES)${platform === 'cpu' ? '' : ` on ${platform}`}`,
      explanation:
        'The OpenCL runtime returned CL_OUT_OF_RESOURCES (-5): it could not allocate what the call needed on the device (buffers, or the registers and local memory of a kernel launch). ' +
        'On NVIDIA\'s runtime the same status also reports a kernel that faulted earlier, at the next blocking call. ' +
        (aborted ? 'It was thrown as a C++ exception nothing caught, so the process aborted.' : 'It reached the program as an error it could have handled.'),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [shrinkPeak('the buffers and work sizes the kernels use (image size, batch, work-group size)')],
      ...(earlier.length > 0 && { takesOverLines: earlier }),
    };
  },
};

export const signatures: readonly Signature[] = [outOfResources];
