package topology

import "github.com/gepcheck/gepcheck/internal/jsonmap"

// OtherGateways maps each Gateway ("namespace/name") of objects whose
// GatewayClass, also in objects, has a spec.controllerName other than
// controller to that controllerName: the Gateways another implementation
// serves. Gateway API GatewayClassSpec.ControllerName: "the name of the
// controller that is managing Gateways of this class"; a Gateway names
// its class in spec.gatewayClassName. A Gateway whose class is not among
// objects is not listed. It is nil when there are none.
func OtherGateways(objects []map[string]any, controller string) map[string]string {
	classes := map[string]string{}
	for _, o := range objects {
		if ctl := jsonmap.String(jsonmap.Map(o["spec"])["controllerName"]); jsonmap.String(o["kind"]) == KindGatewayClass && ctl != controller {
			classes[jsonmap.String(jsonmap.Map(o["metadata"])["name"])] = ctl
		}
	}
	var out map[string]string
	for _, o := range objects {
		if jsonmap.String(o["kind"]) != KindGateway {
			continue
		}
		if ctl, other := classes[jsonmap.String(jsonmap.Map(o["spec"])["gatewayClassName"])]; other {
			if out == nil {
				out = map[string]string{}
			}
			m := jsonmap.Map(o["metadata"])
			out[jsonmap.String(m["namespace"])+"/"+jsonmap.String(m["name"])] = ctl
		}
	}
	return out
}
