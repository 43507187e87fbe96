export {
  createServiceClients as createGatewayClients,
  type ServiceClients as GatewayClients,
} from "@junction/public-api/service-clients";
